<?php

namespace App\Contracts;

interface Repository
{
    public function find(int $id): ?\App\Models\User;
}
