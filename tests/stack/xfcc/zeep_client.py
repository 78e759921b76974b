"""A WSDL-driven XFCC client for tests/stack/xfcc_e2e.rs: Python's zeep reads the relay's WSDL
and calls the service as ChessBase-like clients (Lucas Chess with suds, the ICCF scripts with
zeep) do. Prints one JSON line.

    python3 zeep_client.py WSDL_URL games USER PASSWORD
    python3 zeep_client.py WSDL_URL move USER PASSWORD GAME_ID MOVECOUNT MOVE [offer] [resign] [accept]
"""
import json
import sys

import zeep
import zeep.exceptions
import zeep.helpers


def main():
    url, op, user, password = sys.argv[1:5]
    client = zeep.Client(url)
    try:
        if op == "games":
            result = client.service.GetMyGames(username=user, password=password)
            games = zeep.helpers.serialize_object(result) or []
            if isinstance(games, dict):
                games = games.get("XfccGame") or []
            print(json.dumps({"games": games}, default=str))
        elif op == "move":
            game_id, movecount, move = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
            flags = set(sys.argv[8:])
            # Positional, in the WSDL's order (as the ICCF scripts call it).
            result = client.service.MakeAMove(
                user, password, game_id, "resign" in flags, "accept" in flags, movecount, move,
                "offer" in flags, False, "Gruss aus Python",
            )
            print(json.dumps({"result": str(result)}))
        else:
            raise SystemExit(f"unknown operation {op}")
    except zeep.exceptions.Fault as fault:
        print(json.dumps({"fault": fault.message}))


main()
