# writer `sqlite`: one SQLite database through libsqlite3 (as reader `nsys`).
LIBS_sqlite := -lsqlite3
