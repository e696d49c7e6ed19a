import java.io.*;

public class Guess {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int lo = 1, hi = 1000;
        while (true) {
            int mid = (lo + hi) / 2;
            System.out.println(mid);
            System.out.flush();
            String reply = in.readLine();
            if (reply == null || reply.trim().equals("correct")) return;
            if (reply.trim().equals("lower")) hi = mid - 1; else lo = mid + 1;
        }
    }
}
