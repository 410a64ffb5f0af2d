<?php
namespace App;

class Logger
{
    public function info(string $m): void
    {
        format_line($m);
    }
}

function format_line(string $m): string
{
    return $m;
}
