"""The tournament hall: every board publishes its game to an MQTT broker, one
broadcaster aggregates them and serves them over HTTP (issue 16).

| module | job |
|---|---|
| `topics` | `mqtt://HOST[:PORT]/event/round/board` addresses and the topic names |
| `mqtt` | the paho-mqtt client as both sides use it, and its errors in one line |
| `spool` | the board's events on disk (fsync'd), numbered, and how far the broker has them |
| `board` | one board's game rebuilt from its events: PDN, clocks, alerts, snapshots |
| `publisher` | a board's side: spool, QoS 1 events, the retained position, reconnects |
| `broadcaster` | the hall's side: every board of an event, in order, no duplicates |
| `server` | the broadcaster's HTTP: tournament page, PDNs, alerts, stats |
| `sim` | simulated boards (perfect readings) for the scale test and `damas bench hall` |
| `mosquitto` | Debian's Mosquitto on a free loopback port, for the tests and the bench |
| `bench` | `damas bench hall`: boards in worker processes, doubled until the hall saturates |
"""
