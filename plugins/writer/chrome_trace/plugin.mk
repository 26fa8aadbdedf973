# writer `chrome_trace`: zlib for .json.gz output.
LIBS_chrome_trace := -lz
