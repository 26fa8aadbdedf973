# analysis `overheads`: jansson for the notebook JSON file.
LIBS_overheads := -ljansson
