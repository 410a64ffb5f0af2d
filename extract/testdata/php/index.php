<!DOCTYPE html>
<html>
<body>
<?php
require_once __DIR__ . '/lib/helpers.php';
include 'lib/missing.php';

$svc = new App\Service();
$svc->run(null, null);
greet('world');
?>
<p><?= greet('again') ?></p>
</body>
</html>
