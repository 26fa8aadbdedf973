# kineto reader: zlib for gzip input, pthread for the inflate thread.
LIBS_kineto := -lz -lpthread
