# kineto reader: ISA-L (igzip) for gzip input, pthread for the inflate and
# split threads.
LIBS_kineto := -lisal -lpthread
