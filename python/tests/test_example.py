"""The notebook-style example runs whole, and its figures agree with the
package (the plot is drawn when matplotlib is installed)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "explore.py"


def test_the_example_runs(tmp_path):
    plot = tmp_path / "values.png"
    done = subprocess.run([sys.executable, str(EXAMPLE), str(plot)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "\nsecond\n" in done.stdout  # the move left a lost position
    assert "'kayles': (71, 12)" in done.stdout
    if importlib.util.find_spec("matplotlib") is not None:
        assert plot.stat().st_size > 10_000
    else:
        assert "matplotlib is not installed" in done.stdout
