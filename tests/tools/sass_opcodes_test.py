#!/usr/bin/env python3
"""tools/device/sass_opcodes.py on a hand-made `cuobjdump -sass` dump (the counts below are the dump's, by hand)."""
import os
import subprocess
import tempfile
import unittest

from script_runner import run_on_text

DUMP = """
Fatbin elf code:
================
arch = sm_90a
	code for sm_90a
		Function : _Z15rms_norm_kernelPf
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                     /* 0x00000a00ff017b82 */
        /*0010*/                   IMAD.MOV.U32 R0, RZ, RZ, 0x1 ;              /* 0x0000000100007424 */
        /*0020*/              @!P0 BRA 0x60 ;                                  /* 0x0000000000008947 */
        /*0030*/                   IMAD.SHL.U32 R2, R0, 0x4, RZ ;              /* 0x0000000400027824 */
        /*0040*/               @P1 EXIT ;                                      /* 0x000000000000194d */
        /*0050*/                   BRA 0x50;                                   /* 0xfffffffc00fc7947 */
		..........
		Function : _Z11copy_kernelPf
        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;               /* 0x0000000402027981 */
        /*0010*/                   STG.E desc[UR4][R4.64], R2 ;               /* 0x0000000204007986 */
        /*0020*/                   EXIT ;                                     /* 0x000000000000794d */
"""

# The same kernels after a change: rms_norm one IMAD fewer and one LOP3 more; copy unchanged.
OTHER = DUMP.replace("IMAD.SHL.U32 R2, R0, 0x4, RZ", "LOP3.LUT R2, R0, 0x4, RZ, 0xc0, !PT")


def run(text, *args):
    return run_on_text("device/sass_opcodes.py", text, ".txt", *args)


class SassOpcodes(unittest.TestCase):
    def test_counts_by_mnemonic_without_predicates(self):
        out = run(DUMP, "--match", "rms_norm")
        # LDC, IMAD (MOV and SHL), BRA (predicated and not), EXIT: 6 instructions, IMAD and BRA twice each.
        self.assertRegex(out, r"rms_norm_kernel\S*  6  IMAD:2 BRA:2 LDC:1 EXIT:1\n")
        self.assertNotIn("copy_kernel", out)

    def test_every_kernel_without_a_match(self):
        out = run(DUMP)
        self.assertRegex(out, r"copy_kernel\S*  3  ")
        self.assertEqual(len(out.splitlines()), 2)

    def test_against_another_dump(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(OTHER)
        try:
            out = run(DUMP, "--against", f.name)
        finally:
            os.unlink(f.name)
        # This dump against OTHER: rms_norm 6 -> 6, one IMAD more and one LOP3 fewer; copy 3 -> 3, nothing changed.
        self.assertRegex(out, r"rms_norm_kernel\S*  6 -> 6 \(\+0\)  IMAD:\+1 LOP3:-1\n")
        self.assertRegex(out, r"copy_kernel\S*  3 -> 3 \(\+0\)  \n")

    def test_no_match_is_an_error(self):
        with self.assertRaises(subprocess.CalledProcessError):
            run(DUMP, "--match", "no_such_kernel")


if __name__ == "__main__":
    unittest.main()
