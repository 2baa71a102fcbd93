"""The world's event core in C++ (see blinkc/native/engine.py, docs/emulator.md and, for its
build, sources.py and docs/native.md)."""
