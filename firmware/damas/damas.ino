/*
 * damas - GRBL 1.1-compatible firmware for a draughts-board robot and LED grid.
 *
 * This folder is an Arduino sketch so the Arduino IDE can open and upload it (board
 * "Arduino Uno" or "Arduino Mega 2560"). The code is plain C in the .c files beside this
 * one: main() is in main.c and replaces the Arduino core's, so there is no setup()/loop()
 * and none of the core (Serial, millis) is used. Machine settings: config.h; pins:
 * cpu_map.h. The usual build is `make -C firmware` (see ../README.md).
 */
