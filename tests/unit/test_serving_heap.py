"""The serving process's heap policy (serving.heap): a long-lived server freezes what it loaded."""

import gc
import subprocess
import sys

from serving import heap


def test_release_and_resettle_are_no_ops_in_a_process_that_never_settled():
    before = gc.get_freeze_count(), gc.get_threshold()
    heap.release()
    heap.resettle()
    assert (gc.get_freeze_count(), gc.get_threshold()) == before


def test_settle_freezes_the_loaded_heap_and_a_release_lets_an_old_version_be_collected():
    # an old version: a cycle still held by a call when the new version arrives, dropped after
    code = ("import gc, weakref; from serving import heap\n"
            "class V: pass\n"
            "old = V(); old.me = old; ref = weakref.ref(old); keep = [{'i': i} for i in range(1000)]\n"
            "heap.settle(); n = gc.get_freeze_count()\n"
            "heap.release(); released = gc.get_freeze_count()\n"
            "del old; heap.resettle()\n"
            "print(n > 1000, released, ref() is None, gc.get_freeze_count() > 1000, gc.get_threshold()[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "0", "True", "True", str(heap.YOUNG)]
