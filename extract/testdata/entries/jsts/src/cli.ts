import { Command } from "commander";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";

const program = new Command();
program.name("tool");

program
  .command("build <dir>")
  .description("build it")
  .action(build);

const db = program.command("db");
db.command("migrate").action(() => {
  migrate();
});

function build(dir: string) {}

function migrate() {}

function serve(argv: any) {}

yargs(hideBin(process.argv))
  .command("serve [port]", "start the server", (y: any) => y, serve)
  .command({ command: "clean", describe: "clean", handler: clean })
  .parse();

function clean() {}
