"""The world's event core in C++ (see native_world.py and docs/emulator.md)."""
