"""damas.sim: the world outside the controller, simulated for tests, the demo and the
benches: a person's hands making a move (`person`, the boards only; `handmove`, the
rendered arm). Production code never imports it; it may import every stage."""
