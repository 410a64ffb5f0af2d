<?php

namespace App\Models;

use App\Contracts\Repository;
use App\Logger;

final class User extends Model implements \JsonSerializable
{
    use HasName;

    private Logger $logger;
    public static int $count = 0;

    public function __construct(private Repository $repo, int $n = 0)
    {
        parent::__construct();
        $this->logger = new Logger();
    }

    public function jsonSerialize(): mixed
    {
        $this->logger->info($this->name());
        return self::label();
    }

    public static function label(): string
    {
        return static::format('u');
    }

    public static function format(string $s): string
    {
        return strtoupper($s);
    }

    public function reload(): ?User
    {
        return $this->repo->find(1);
    }
}
