"""``python -m airqueue.cli``: the same as the ``airqueue`` command."""

from airqueue.cli import main

if __name__ == "__main__":
    main()
