<?php

namespace App\Models;

enum Status: string
{
    case Active = 'a';

    public function label(): string
    {
        return self::describe();
    }

    public static function describe(): string
    {
        return 'status';
    }
}
