# reader `nsys`: SQLite exports read through libsqlite3, JSON-lines
# exports one line at a time by a scanner of their own (nsys_jscan.c), jansson
# for the lines it does not take (docs/dependencies.md); pthread for the
# readers' second threads (nsys_json_split.c, nsys_rows.c).
LIBS_nsys := -lsqlite3 -ljansson -lpthread
