"""The world's event core in C++ (see blinkc/native_world/engine.py, docs/emulator.md and, for its
build, sources.py and docs/native.md)."""
