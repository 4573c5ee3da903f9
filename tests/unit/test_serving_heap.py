"""The serving process's heap policy (serving.heap): a long-lived server freezes what it loaded."""

import gc
import subprocess
import sys

from serving import heap


def test_resettle_is_a_no_op_in_a_process_that_never_settled():
    before = gc.get_freeze_count(), gc.get_threshold()
    heap.resettle()
    assert (gc.get_freeze_count(), gc.get_threshold()) == before


def test_settle_freezes_the_loaded_heap_and_collects_the_young_less_often():
    code = ("import gc; from serving import heap; keep = [{'i': i} for i in range(1000)]; heap.settle(); "
            "n = gc.get_freeze_count(); heap.resettle(); "
            "print(n > 1000, gc.get_freeze_count() > 1000, gc.get_threshold()[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True", str(heap.YOUNG)]
