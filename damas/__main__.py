import sys

from damas.cli import main

sys.exit(main())
