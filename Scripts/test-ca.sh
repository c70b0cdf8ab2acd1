# Sourced by scripts that serve HTTPS on loopback (Benchmarks/download.sh, Scripts/link-order.sh).
#
#     make_test_ca DIR NAME
#
# Makes a certificate authority named NAME with openssl (P-256, 30 days) in DIR/ca.pem and
# DIR/ca.key, and a server certificate it signed for 127.0.0.1 in DIR/server.pem and
# DIR/server.key: what a client given DIR/ca.pem (carryon --cacert, curl --cacert) trusts.
make_test_ca() {
    local ca="$1" name="$2"
    mkdir -p "$ca"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$ca/ca.key" -out "$ca/ca.pem" -days 30 \
        -subj "/CN=$name" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$ca/server.key" -out "$ca/server.csr" -subj /CN=127.0.0.1 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$ca/server.ext"
    openssl x509 -req -in "$ca/server.csr" -CA "$ca/ca.pem" -CAkey "$ca/ca.key" -CAcreateserial -out "$ca/server.pem" -days 30 \
        -extfile "$ca/server.ext" 2>/dev/null
}
