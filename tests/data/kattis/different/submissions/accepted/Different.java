import java.util.Scanner;

public class Different {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        while (in.hasNextLong()) {
            long a = in.nextLong(), b = in.nextLong();
            System.out.println(Math.abs(a - b));
        }
    }
}
