"""`blinkc` imports a command's module only when that command runs: the table it goes by
must name every command the modules define, and each in the module that defines it."""

import importlib
import pkgutil
import subprocess
import sys

import blinkc.cli
from blinkc.cli import COMMAND_MODULES, main


def test_the_table_names_every_command_in_the_module_that_defines_it():
    for module in pkgutil.iter_modules(blinkc.cli.__path__):
        importlib.import_module(f"blinkc.cli.{module.name}")
    defined = {name: command.callback.__module__.removeprefix("blinkc.cli.")
               for name, command in main.commands.items()}
    assert defined == COMMAND_MODULES


def test_a_command_runs_without_importing_the_others():
    code = ("import sys\nfrom blinkc.cli import main\n"
            "try:\n    main(['gen', '--help'], prog_name='blinkc')\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('blinkc.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "['blinkc.cli.gen']"
