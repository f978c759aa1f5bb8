"""Writes a hostile trace for BUG-5 (docs/FUZZING.md): N categories x M labels, one span of
each (category, label) pair, in raw frames without checksums. Usage:
    python3 make_pairs_trace.py N M OUT.wtrace
2000 2000 gives 4 million spans in 36 MB; the ledger, anomalies and export then use 6.5 GB."""
import struct, sys
def varint(v):
    out=bytearray()
    while v>=0x80:
        out.append((v&0x7f)|0x80); v>>=7
    out.append(v); return bytes(out)
def header(pid=1):
    fields = b'\x01\x01\x01' + b'\x02\x01\x00' + b'\x03\x01\x00'
    payload = b'WTRACE'+struct.pack('<HH',1,0)+fields
    return struct.pack('<II',0x184D2A57,len(payload))+payload
def raw_frame(content):
    out = bytearray(struct.pack('<I',0xFD2FB528)+b'\xE0'+struct.pack('<Q',len(content)))
    B=128*1024
    for i in range(0, len(content), B):
        chunk = content[i:i+B]; last = 1 if i+B >= len(content) else 0
        out += struct.pack('<I',(len(chunk)<<3)|last)[:3] + chunk
    return bytes(out)
N=int(sys.argv[1]); M=int(sys.argv[2])  # N categories x M labels
f=open(sys.argv[3],'wb'); f.write(header())
strs=bytearray()
for i in range(1,N+M+1):
    s=(b'c%d'%i) if i<=N else (b'l%d'%i)
    strs += b'\x01'+varint(i)+varint(len(s))+s
frame=bytearray(strs)+b'\x02\x01\x00'
span_tail={}
for c in range(1,N+1):
    cv=varint(c)
    for l in range(N+1,N+M+1):
        frame += b'\x03\x00\x01\x01\x00'+cv+varint(l)
        if len(frame) > 4000000:
            f.write(raw_frame(bytes(frame))); frame=bytearray(b'\x02\x01'+varint(0))
f.write(raw_frame(bytes(frame)+b'\x0A'+varint(10**9)+b'\x01\x00'))
