<?php

namespace App\Models;

abstract class Model
{
    public function __construct()
    {
        $this->boot();
    }

    protected function boot(): void
    {
    }

    public static function create(): static
    {
        return new static();
    }

    public function save(): bool
    {
        return true;
    }
}
