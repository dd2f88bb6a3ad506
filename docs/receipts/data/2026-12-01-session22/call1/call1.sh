#!/usr/bin/env bash
# Session 22, call 1 (carry [".device"], timeout_s 560): session 21's prepared script, run as it is (main e3d3775,
# branch next-nt2-bounds at 1610d27); its output is beside this file.
exec bash docs/receipts/data/2026-12-01-session21/next/call-nt2-bound.sh
