<?php

namespace App\Models;

trait HasName
{
    public function name(): string
    {
        return 'n';
    }
}
