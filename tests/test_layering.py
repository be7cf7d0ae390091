"""Imports point down: the rules core never loads the web layer."""

import subprocess
import sys


def test_core_and_bots_do_not_load_flask():
    code = ("import sys, spades, spades.records, spades.views, spades.bots; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'werkzeug', 'jinja2')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
