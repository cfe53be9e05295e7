"""The GIL is released while an FMU runs: simulations in two Python threads both finish, and
they overlap (each step of the FMU sleeps, so two runs in turn take twice as long as one)."""

import threading
import time

import tandem

STEP_SLEEP = {"delay": 0.05}  # 5 steps of 0.1 s to t = 0.5, each sleeping 50 ms


def simulate(faulty_fmu):
    return tandem.simulate(faulty_fmu, stop_time=0.5, step_size=0.1, start_values=STEP_SLEEP)


def test_two_threads_simulate_at_once(faulty_fmu):
    began = time.perf_counter()
    alone = simulate(faulty_fmu)
    one = time.perf_counter() - began
    assert one >= 0.25

    results = [None, None]

    def worker(slot):
        results[slot] = simulate(faulty_fmu)

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(2)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    # The main thread keeps running Python code meanwhile.
    ticks = 0
    while any(thread.is_alive() for thread in threads):
        ticks += 1
        time.sleep(0.01)
    both = time.perf_counter() - began
    for thread in threads:
        thread.join()

    for result in results:
        assert result is not None and result.tobytes() == alone.tobytes()
    assert both < 1.5 * one, f"two runs took {both:.3f} s, one alone {one:.3f} s"
    assert ticks >= 10
