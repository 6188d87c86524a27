# %% [markdown]
# # nimstream from Python: a notebook-style tour
#
# Run it cell by cell in Jupyter or VS Code (the `# %%` markers), or whole:
# `python python/examples/explore.py [PLOT.png]`. It needs the package
# (`pip install ./python`) and numpy; the plot needs matplotlib, and is
# skipped without it.

# %%
import sys

import numpy

import nimstream

# %% [markdown]
# ## A numpy array, read in place
#
# Sixteen million 64-bit heaps. `analyze` reads the array where it lies (no
# copy) on every core, with the GIL released; the report is the CLI's
# `--json`, with Python ints for the values.

# %%
rng = numpy.random.default_rng(2026)
heaps = rng.integers(0, 2**63, size=1 << 24, dtype=numpy.uint64)
report = nimstream.analyze(heaps)
print(report)
print("nim-sum:", report.nim_sum, "| winning moves:", report.winning_moves)
move = report.move
print("take {} from heap {} (it holds {}), leaving {}".format(move.take, move.heap, move.from_,
                                                              move.leave))

# %% [markdown]
# After the move the position is lost for the player to move, whatever they
# do: the nim-sum is 0.

# %%
heaps[move.heap] = move.leave[0] if move.leave else 0
print(nimstream.analyze(heaps).winner)  # 'second'

# %% [markdown]
# ## Heaps of any size, as Python ints
#
# An iterable of ints is streamed into the engine; heaps may have millions
# of bits.

# %%
big = [2**100_000 + 12345, 2**99_999, 3**60_000]
report = nimstream.analyze(big)
print("nim-sum has", report.nim_sum_bit_length, "bits; move on heap", report.move.heap)
print("misère:", nimstream.analyze([1, 1, 1], rule="misere").winner)

# %% [markdown]
# ## Heap games: Grundy values and their periods
#
# Kayles is periodic from 71 with period 12; `values` gives numpy out, and a
# heap of any size has its value by the period.

# %%
kayles = nimstream.Game("kayles")
print(kayles.canonical, "preperiod and period:", kayles.period())
print("g(10^100) =", kayles.value(10**100))
games = {name: nimstream.Game(name) for name in ["kayles", "dawsons-kayles", "octal:0.16"]}
values = {name: game.values(400) for name, game in games.items()}
print({name: game.period() for name, game in games.items()})

# %%
try:
    import matplotlib

    matplotlib.use("Agg" if len(sys.argv) > 1 else matplotlib.get_backend())
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
    print("matplotlib is not installed: no plot")
if plt is not None:
    figure, axes = plt.subplots(len(values), 1, figsize=(10, 2.2 * len(values)))
    for axis, (name, sequence) in zip(axes, values.items()):
        axis.plot(sequence, ".", markersize=3)
        period = games[name].period()
        if period is not None and period[0] < len(sequence):
            axis.axvspan(period[0], len(sequence), alpha=0.15, label="periodic part")
            axis.legend(loc="upper right")
        axis.set_ylabel("g(h)")
        axis.set_title("{}: preperiod and period {}".format(games[name].canonical, period))
    axes[-1].set_xlabel("heap h")
    figure.tight_layout()
    if len(sys.argv) > 1:
        figure.savefig(sys.argv[1])
        print("plot written to", sys.argv[1])
    else:
        plt.show()

# %% [markdown]
# ## A game on every heap, and a sum decided
#
# Dawson's Kayles on heaps of any size: each heap's value by its residue,
# their XOR, and a move that makes it 0.

# %%
report = nimstream.analyze([10**40, 7, 12345], game="dawsons-kayles")
print(report.grundy_sum, report.move)

# %% [markdown]
# ## Misère play: the quotient
#
# Under misère play the values no longer add up; a heap game's misère
# quotient (Plambeck–Siegel) does: each heap maps to an element of a small
# commutative monoid, a sum to the product of its heaps' elements, and the
# player to move loses exactly when the product lies in the P-portion.

# %%
quotient = nimstream.Game("kayles").misere()
print(quotient)
print("generators and relations:", quotient.presentation)
print("P-portion:", [quotient.elements[i] for i in quotient.p_portion])
for heaps in ([1], [1, 1], [2, 2], [1, 4, 5], [10**30, 10**30]):
    print(heaps if len(str(heaps)) < 40 else "two heaps of 10^30", "->",
          quotient.outcome(heaps), "wins")
