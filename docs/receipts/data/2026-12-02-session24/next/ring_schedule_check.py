import random
S, K = 4, 32
def sim(nb, block, ne):
    per_block = (block + K - 1)//K; batches = nb*per_block
    stages = [None]*S; pending = []  # groups: list of (stage, content)
    committed = []
    def issue(k):
        if k < batches:
            b = k//per_block; v0 = b*block + (k%per_block)*K; v1 = min(ne, (b+1)*block)
            content = [(v0+j if v0+j < v1 else 'Z') for j in range(K)]
            committed.append((k % S, content))
        else:
            committed.append(None)
    def wait(n):
        # complete all but the newest n groups
        while len(pending_idx) < len(committed) - n:
            g = committed[len(pending_idx)]
            if g: stages[g[0]] = g[1]
            pending_idx.append(1)
    pending_idx = []
    for k in range(S-1): issue(k)
    k = 0; seen = []
    for b in range(nb):
        v1 = min(ne, (b+1)*block)
        for q in range(per_block):
            wait(S-2)
            v = b*block + q*K
            if v < v1:
                st = stages[k % S]
                for j in range(K):
                    if v+j < v1:
                        assert st[j] == v+j, (nb, block, ne, k, j, st[j])
                        seen.append(v+j)
                    else:
                        assert st[j] == 'Z'
            # simulate: a later-issued copy may land any time after issue; check the stage we issue into isn't k's
            issue(k + S - 1)
            assert (k + S - 1) % S != k % S
            k += 1
    assert seen == list(range(min(ne, nb*block))), (seen[:5], ne)
for _ in range(20000):
    block = random.choice([1,3,8,16,31,32,33,64,100,256])
    nb = random.randint(1, max(1, min(64, 512//block)))
    ne = random.randint((nb-1)*block+1, nb*block)
    sim(nb, block, ne)
print("ring schedule ok")
