import argparse

import click


@click.group()
def cli():
    pass


@cli.command()
def sync_all():
    pass


@cli.command("push")
def push_cmd():
    pass


@click.command(name="standalone")
def alone():
    pass


def run(args):
    pass


def show(args):
    pass


def main():
    parser = argparse.ArgumentParser(prog="tool")
    sub = parser.add_subparsers()
    p = sub.add_parser("run")
    p.set_defaults(func=run)
    sub.add_parser("show").set_defaults(func=show)
    sub.add_parser("noop")
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
