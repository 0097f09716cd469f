"""``python -m jsoncontract``."""

from jsoncontract.cli import main

if __name__ == "__main__":
    main()
