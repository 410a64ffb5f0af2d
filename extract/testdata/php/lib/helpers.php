<?php

function greet(string $who): string
{
    return 'hello ' . $who;
}
