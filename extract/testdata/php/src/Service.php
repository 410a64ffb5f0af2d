<?php
namespace App;

use App\Models\{User, Model as BaseModel};
use App\Contracts\Repository;
use Monolog\Handler\StreamHandler;
use function App\format_line;

class Service
{
    public function run(Repository $repo, $untyped): void
    {
        $u = new User($repo);
        $u->save();
        $u->reload()->name();
        $repo->find(2);
        User::label();
        BaseModel::create();
        $untyped->anything();
        $h = new StreamHandler('php://stdout');
        format_line('x');
        (new Logger())->info('y');
    }
}
