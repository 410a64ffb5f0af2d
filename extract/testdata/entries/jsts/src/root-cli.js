const { Command } = require("commander");

const program = new Command("greet");
program.argument("<name>").action(greet);

function greet(name) {}
