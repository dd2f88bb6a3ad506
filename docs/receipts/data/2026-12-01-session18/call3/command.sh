# Session 18 call 3 (run on the warm machine right after call 2, its .device carried): ncu of the mHC and norm
# kernels at one row, next-hc-norm with its norm inside hc_pre's block (PLUMB_FUSED_HC_NORM=1) and without (0).
# n-1.txt and n-0.txt are the raw ncu output. The fused hc_pre_kernel<1> took 12.4 us (hc_pre 6.1 + rms_norm 4.6).
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name regex:hc_pre|rms_norm|hc_mix --launch-count 240"
for v in plumb-next-hc-norm; do for sw in 1 0; do echo "== $v PLUMB_FUSED_HC_NORM=$sw"
  PLUMB_FUSED_HC_NORM=$sw PLUMB_CUDA_GRAPHS=0 timeout -k 5 150 $NCU $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > /tmp/n-$sw.txt 2>&1
  grep -E "^  [^ ]|gpu__time_duration" /tmp/n-$sw.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | awk '{k=$1" "$2" "$3; t=$NF; n[k]++; s[k]+=t; if(!(k in mn)||t<mn[k])mn[k]=t; if(t>mx[k])mx[k]=t} END{for(k in n) printf "%-60s n=%d mean=%.2f min=%.2f max=%.2f\n",k,n[k],s[k]/n[k],mn[k],mx[k]}'
  cp /tmp/n-$sw.txt $OUT/; done; done
