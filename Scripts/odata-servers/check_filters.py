"""Parses OData v4 $filter strings with the independent `odata-query` package.

Reads one filter per line on stdin; prints `OK <root node type>` (for example `OK Compare`) or
`ERROR <message>` per line, in order. Exits 0 when every line parsed.
"""

import sys

from odata_query.grammar import ODataLexer, ODataParser


def main():
    lexer = ODataLexer()
    parser = ODataParser()
    failed = False
    for line in sys.stdin.read().splitlines():
        if not line.strip():
            continue
        try:
            tree = parser.parse(lexer.tokenize(line))
            print("OK %s" % type(tree).__name__)
        except Exception as error:  # noqa: BLE001 - report every parser failure per line
            failed = True
            print("ERROR %s: %s" % (type(error).__name__, str(error).replace("\n", " ")))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
