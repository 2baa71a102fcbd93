"""The world's event core in C++ (see blinkc/native/world.py and docs/emulator.md)."""
