#!/usr/bin/env python3
"""tools/device/ncu_layer_table.py on a hand-made ncu CSV (expected values worked out by hand in the comments)."""
import unittest

from script_runner import run_on_text

HEAD = '"ID","Kernel Name","Block Size","Grid Size","Section Name","Metric Name","Metric Unit","Metric Value"\n'
ALU = "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"


def row(i, name, metric, unit, value):
    return f'"{i}","{name}","(256, 1, 1)","(1, 1, 1)","Command line profiler metrics","{metric}","{unit}","{value}"\n'


# Launch 0 is a warm-up copy before the layer; the layer is launches 1-4 (hc_mix to the third hc_mix, exclusive).
LAUNCHES = [("copy_kernel(int)", 1000, 5.0), ("void hc_mix_kernel(HcArgs)", 2000, 10.0),
            ("void (anonymous namespace)::experts_pass_kernel<1, 0>(PassArgs)", "6,000", 50.0),
            ("void hc_mix_kernel(HcArgs)", 4000, 30.0), ("void attention_pv_kernel<64>(A)", 1000, 20.0),
            ("void hc_mix_kernel(HcArgs)", 2000, 99.0)]
CSV = "==PROF== an unquoted ncu line\n" + HEAD + "".join(
    row(i, name, "gpu__time_duration.sum", "ns", ns) + row(i, name, ALU, "%", alu)
    for i, (name, ns, alu) in enumerate(LAUNCHES))


def run(*args):
    return run_on_text("device/ncu_layer_table.py", CSV, ".csv", *args)


class NcuLayerTable(unittest.TestCase):
    def test_groups_with_time_weighted_metrics(self):
        out = run()
        # hc_mix: 2 + 4 us = 6 of the layer's 2 + 6 + 4 + 1 = 13 us (46.2%); alu (2 x 10 + 4 x 30) / 6 = 23.33.
        self.assertRegex(out, r"\nhc_mix_kernel +2 +6\.0 +46\.2% +23\.3\n")
        # experts_pass: 6 us (the value's thousands comma read), 46.2%, alu 50.
        self.assertRegex(out, r"\nexperts_pass_kernel +1 +6\.0 +46\.2% +50\.0\n")
        self.assertRegex(out, r"\none layer +4 +13\.0\n")

    def test_classes(self):
        out = run()
        self.assertRegex(out, r"\nweights +1 +6\.0 +46\.2% +50\.0\n")
        self.assertRegex(out, r"\nattention +1 +1\.0 +7\.7% +20\.0\n")
        self.assertRegex(out, r"\nglue +2 +6\.0 +46\.2% +23\.3\n")

    def test_list_in_launch_order(self):
        lines = run("--list").splitlines()
        self.assertIn("alu%", lines[0])
        self.assertRegex(lines[1], r"^hc_mix_kernel +2\.0 +10\.0 ")
        self.assertRegex(lines[2], r"^experts_pass_kernel<1, 0> +6\.0 +50\.0 ")
        self.assertRegex(lines[4], r"^attention_pv_kernel<64> +1\.0 +20\.0 ")


if __name__ == "__main__":
    unittest.main()
