import sys

from stratum.cli import main

sys.exit(main())
