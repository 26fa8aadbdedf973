# reader `nsys`: SQLite exports read through libsqlite3, JSON-lines
# exports one line at a time through jansson (docs/dependencies.md).
LIBS_nsys := -lsqlite3 -ljansson
