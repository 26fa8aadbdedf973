import subprocess, sys
for trace, name in (("tests/data/kineto/corpus/hta_nccl_data.json.gz", "it_nccl.csv"),
                    ("tests/data/kineto/corpus/kineto_tbplugin_resnet50_profapi_nw0_2021-01.pt.trace.json.gz",
                     "it_resnet.csv")):
    subprocess.run([sys.executable, "tests/tools/check_iterations.py", trace, sys.argv[1] + "/" + name,
                    r"^ProfilerStep#\d+$", "host"], check=True)
