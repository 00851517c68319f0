// nanoflann peer for Benchmarks/compare.sh: k nearest neighbors of query unit vectors among place
// unit vectors (3D Euclidean, which orders like great-circle distance), one query per call.
// Usage: nanoflann_knn PLACES.csv POSITIONS.csv K LEAF REPETITIONS CHECK.csv
// Reads the ux,uy,uz columns written by `rotate generate --vectors`; prints one JSON line;
// writes the neighbor indices of the first 1,000 queries to CHECK.csv for verification.
#include <nanoflann.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct Cloud {
    std::vector<double> xyz;  // flat
    size_t kdtree_get_point_count() const { return xyz.size() / 3; }
    double kdtree_get_pt(size_t i, size_t d) const { return xyz[3 * i + d]; }
    template <class B> bool kdtree_get_bbox(B&) const { return false; }
};

static std::vector<double> readVectors(const char* path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    { std::stringstream ss(line); std::string f; while (std::getline(ss, f, ',')) header.push_back(f); }
    int ux = -1;
    for (size_t i = 0; i < header.size(); ++i) if (header[i] == "ux") ux = (int)i;
    if (ux < 0) { fprintf(stderr, "%s: no ux column\n", path); exit(1); }
    std::vector<double> out;
    while (std::getline(in, line)) {
        // Fields may be quoted (names); the vector columns are the last three, unquoted.
        size_t end = line.size();
        double v[3];
        for (int c = 2; c >= 0; --c) {
            size_t comma = line.rfind(',', end - 1);
            v[c] = strtod(line.c_str() + comma + 1, nullptr);
            end = comma;
        }
        out.insert(out.end(), v, v + 3);
    }
    return out;
}

int main(int argc, char** argv) {
    if (argc != 7) { fprintf(stderr, "usage: nanoflann_knn PLACES POSITIONS K LEAF REPETITIONS CHECK\n"); return 2; }
    Cloud cloud; cloud.xyz = readVectors(argv[1]);
    std::vector<double> queries = readVectors(argv[2]);
    const size_t k = atoi(argv[3]), leaf = atoi(argv[4]), reps = atoi(argv[5]);
    const size_t n = cloud.kdtree_get_point_count(), q = queries.size() / 3;
    using Tree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, Cloud>, Cloud, 3>;
    std::vector<double> builds;
    Tree* tree = nullptr;
    for (size_t r = 0; r < reps; ++r) {
        delete tree;
        auto t0 = std::chrono::steady_clock::now();
        tree = new Tree(3, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(leaf));
        tree->buildIndex();
        builds.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::vector<unsigned int> idx(k);
    std::vector<double> dist(k);
    unsigned long long checksum = 0;
    std::vector<double> times;
    for (size_t r = 0; r < reps + 1; ++r) {  // the first run is a warm-up
        auto t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < q; ++i) {
            size_t found = tree->knnSearch(&queries[3 * i], k, idx.data(), dist.data());
            for (size_t j = 0; j < found; ++j) checksum += idx[j] + 1;
        }
        double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / q;
        if (r > 0) times.push_back(ns);
    }
    FILE* check = fopen(argv[6], "w");
    for (size_t i = 0; i < std::min<size_t>(q, 1000); ++i) {
        size_t found = tree->knnSearch(&queries[3 * i], k, idx.data(), dist.data());
        for (size_t j = 0; j < found; ++j) fprintf(check, j ? ",%u" : "%u", idx[j]);
        fprintf(check, "\n");
    }
    fclose(check);
    std::sort(times.begin(), times.end());
    std::sort(builds.begin(), builds.end());
    // Index memory: the points are the caller's (24 bytes each) plus nanoflann's index permutation
    // (4 bytes, unsigned int in nanoflann 1.4) and nodes (counted as ~2n/leaf nodes of 56 bytes).
    double bytes = 24.0 + 4.0 + 2.0 * 56.0 / leaf;
    printf("{\"peer\":\"nanoflann leaf %zu\",\"n\":%zu,\"queries\":%zu,\"build_ms\":%.3f,\"ns_per_query\":%.1f,\"ns_min\":%.1f,\"ns_max\":%.1f,\"bytes_per_place\":%.1f,\"checksum\":%llu}\n",
           leaf, n, q, builds[builds.size() / 2], times[times.size() / 2], times.front(), times.back(), bytes, checksum);
    delete tree;
    return 0;
}
