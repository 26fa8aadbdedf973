# writer `chrome_trace`: zlib for .json.gz output, jansson to check args.
LIBS_chrome_trace := -lz $(shell pkg-config --libs jansson)
CFLAGS_chrome_trace := $(shell pkg-config --cflags jansson)
