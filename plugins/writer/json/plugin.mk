# writer `json` links jansson (string escaping).
LIBS_json := $(shell pkg-config --libs jansson)
CFLAGS_json := $(shell pkg-config --cflags jansson)
