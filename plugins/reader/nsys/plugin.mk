# reader `nsys`: SQLite exports read through libsqlite3, JSON-lines
# exports one line at a time by a scanner of their own (nsys_jscan.c), jansson
# for the lines it does not take (docs/dependencies.md); pthread for the
# JSON reader's second thread (nsys_json_split.c).
LIBS_nsys := -lsqlite3 -ljansson -lpthread
