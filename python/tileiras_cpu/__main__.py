"""python -m tileiras_cpu script.py [args...]: runs script.py as __main__
with tileiras_cpu active (cuTile's launches on the CPU). Exit 2: usage or
no such script."""
import os
import runpy
import sys


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: python -m tileiras_cpu script.py [args...]",
              file=sys.stderr if len(sys.argv) < 2 else sys.stdout)
        return 2 if len(sys.argv) < 2 else 0
    script = sys.argv[1]
    if not os.path.isfile(script):
        print("tileiras_cpu: error: no script %s" % script, file=sys.stderr)
        return 2
    import tileiras_cpu  # noqa: F401  (activates it)
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
