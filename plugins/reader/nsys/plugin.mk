# reader `nsys`: SQLite exports read through libsqlite3 (docs/dependencies.md).
LIBS_nsys := -lsqlite3
