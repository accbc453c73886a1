"""Benchmarks: intake, deadline crunch, scale-out.  Run ``python -m bench --help``.

Each benchmark prints its figures and the ratio against a floor measured in the
same run on the same servers (a bare imapclient FETCH loop, a bare aiosmtplib
send loop).  Nothing here asserts a time.
"""
