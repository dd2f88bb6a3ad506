"""Runs a tools/ script on text written to a temporary file (the device tools' tests share it)."""
import os
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")


def run_on_text(script, text, suffix, *args):
    """The script's stdout, run as `python3 tools/SCRIPT FILE ARGS...` with FILE holding text."""
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([sys.executable, os.path.join(TOOLS, script), f.name, *args], capture_output=True,
                              text=True, check=True).stdout
    finally:
        os.unlink(f.name)
