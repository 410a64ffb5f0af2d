<?php

if (! function_exists('greet')) {
    function greet(string $who): string
    {
        return shout('hello ' . $who);
    }
} else {
    function greet(string $who): string
    {
        return $who;
    }
}

function shout(string $s): string
{
    return strtoupper($s);
}
