#!/usr/bin/env bash
# Session 22, call 2 (carry [".device"], timeout_s 560): session 21's prepared script, run as it is (main e3d3775,
# branch next-fp8-even at 4948cf2); its output is beside this file.
exec bash docs/receipts/data/2026-12-01-session21/next/call-fp8-even.sh
