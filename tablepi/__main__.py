import sys

from tablepi.cli import main

sys.exit(main())
